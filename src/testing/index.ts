// `loci/testing`: the contract suites every adapter of a pluggable family must pass, and the
// fake provider servers loci's own tests use (127.0.0.1 only). Run them under vitest (a peer
// dependency of this entry only): `describeStoreContract('my store', async () => …)`.
export { describeStoreContract, catalogEntry, chunk, type StoreHarness } from '../store/test-support/store-contract.js';
export { describeEmbedderContract, type EmbedderHarness } from '../embed/test-support/embedder-contract.js';
export { FakeEmbeddingServer, fakeVector, type Fault, type RecordedRequest } from '../embed/test-support/fake-embedding-server.js';
export { describeRerankerContract, type RerankerHarness } from '../context/rerank/test-support/reranker-contract.js';
export { FakeChatServer, type ChatFault, type ChatRequestRecord } from '../llm/test-support/fake-chat-server.js';
