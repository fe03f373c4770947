export { FAKE_AIPROXY_ANSWER, FAKE_AIPROXY_DOCUMENTS, FAKE_AIPROXY_LIBRARY_ID, startFakeAIProxyLibrary, type AIProxyLibraryRecordedRequest, type FakeAIProxyLibrary } from './server.js';
