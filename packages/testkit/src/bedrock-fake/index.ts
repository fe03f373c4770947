export { startFakeBedrock } from './server.js';
export type { BedrockRecordedRequest, FakeAwsCredentials, FakeBedrock, FakeBedrockFault, FakeBedrockOptions } from './types.js';
export { encodeFrame } from './event-stream.js';
export { canonicalRequest, signature as sigV4Signature, stringToSign as sigV4StringToSign } from './sigv4.js';
export { bedrockDocumentedError, bedrockDocumentedErrors, bedrockEventStream, type BedrockDocumentedError } from './fixtures.js';
