/** One message of an OpenAI-style chat. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  abortSignal?: AbortSignal;
}

export interface ChatResult {
  text: string;
  model: string;
  finishReason?: string;
  usage?: { promptTokens?: number; completionTokens?: number };
}

/**
 * A chat model, versioned like the embedder spec. `stream` yields text deltas as they
 * arrive; `complete` returns the whole answer. Both honour the abort signal.
 */
export interface ChatModel {
  readonly specificationVersion: 'v1';
  readonly provider: string;
  readonly modelId: string;
  complete(request: ChatRequest): Promise<ChatResult>;
  stream(request: ChatRequest): AsyncIterable<string>;
}
