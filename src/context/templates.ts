import { readFileSync } from 'node:fs';
import { LociError } from '../errors/index.js';
import type { ChatMessage } from '../llm/spec.js';
import type { ContextItem } from './pack.js';

export const DEFAULT_SYSTEM_PROMPT =
  'You are a careful assistant for a software project. Answer from the numbered context below. ' +
  'Cite the context you use as [n] (its number); if the context does not hold the answer, say so instead of guessing.';

export interface HistoryTurn {
  userQuery: string;
  assistantResponse: string;
}

export interface TemplateInput {
  system: string;
  history: readonly HistoryTurn[];
  items: readonly ContextItem[];
  question: string;
}

/** A custom template: text with {{system}}, {{history}}, {{context}} and {{question}}. */
export interface PromptTemplate {
  source: string;
  text: string;
}

const PLACEHOLDERS = ['system', 'history', 'context', 'question'] as const;

const fence = (text: string) => (text.includes('```') ? '````' : '```');

/** One numbered context block: `[n] path:start-end`, then the code in a fence. */
export function renderItem(item: ContextItem, number: number): string {
  const marker = fence(item.text);
  return `[${number}] ${item.path}:${item.startLine}-${item.endLine}\n${marker}${item.language ?? ''}\n${item.text}\n${marker}`;
}

export function renderContext(items: readonly ContextItem[]): string {
  return items.map((item, index) => renderItem(item, index + 1)).join('\n\n');
}

export function renderHistory(history: readonly HistoryTurn[]): string {
  return history.map((turn) => `User: ${turn.userQuery}\nAssistant: ${turn.assistantResponse}`).join('\n\n');
}

/**
 * The RAG prompt (DeepWiki's shape): system prompt, conversation history, numbered
 * contexts with path and lines, then the question. Empty sections are left out.
 */
export function renderPrompt(input: TemplateInput, template?: PromptTemplate): string {
  if (template) {
    const values: Record<(typeof PLACEHOLDERS)[number], string> = {
      system: input.system,
      history: renderHistory(input.history),
      context: renderContext(input.items),
      question: input.question,
    };
    return template.text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => values[name as keyof typeof values]);
  }
  const sections = [input.system];
  if (input.history.length > 0) sections.push(`## Conversation so far\n\n${renderHistory(input.history)}`);
  if (input.items.length > 0) sections.push(`## Context\n\n${renderContext(input.items)}`);
  sections.push(`## Question\n\n${input.question}`);
  return sections.join('\n\n');
}

/**
 * OpenAI-style messages (the Go agent's shape): the system prompt, the context as a second
 * system message only when something passed the threshold, the history as turns, then the
 * user's question.
 */
export function renderMessages(input: TemplateInput): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: input.system }];
  if (input.items.length > 0) messages.push({ role: 'system', content: `Context:\n\n${renderContext(input.items)}` });
  for (const turn of input.history) {
    messages.push({ role: 'user', content: turn.userQuery }, { role: 'assistant', content: turn.assistantResponse });
  }
  messages.push({ role: 'user', content: input.question });
  return messages;
}

/** Loads a custom template, refusing unknown placeholders and one without {{question}}. */
export function loadTemplate(path: string): PromptTemplate {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new LociError('ROOT_NOT_FOUND', `Template file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  return parseTemplate(text, path);
}

export function parseTemplate(text: string, source = '(inline)'): PromptTemplate {
  const unknown = [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1] as string).filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new LociError('INVALID_ARGUMENT', `Template ${source} uses unknown placeholder${unknown.length > 1 ? 's' : ''} ${[...new Set(unknown)].map((name) => `{{${name}}}`).join(', ')}.`, {
      hint: `Use ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}.`,
    });
  }
  if (!/\{\{\s*question\s*\}\}/.test(text)) throw new LociError('INVALID_ARGUMENT', `Template ${source} has no {{question}} placeholder.`);
  return { source, text };
}
