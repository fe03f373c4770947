export * from './openai-fake/index.js';
export * from './anthropic-fake/index.js';
export { startFakeSmtp, type CapturedMail, type FakeSmtp, type FakeSmtpOptions } from './smtp-fake/server.js';
export { parseMail, type ParsedMail } from './smtp-fake/mime.js';
export * from './epay-fake/index.js';
export * from './gemini-fake/index.js';
export * from './oauth-fake/index.js';
export * from './mj-fake/index.js';
