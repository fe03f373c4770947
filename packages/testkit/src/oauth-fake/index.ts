export { startFakeOAuth } from './server.js';
export { startFakeWeChatServer, type FakeWeChatServer, type FakeWeChatServerOptions } from './wechat.js';
export { telegramHash, telegramLoginPayload, type TelegramPayloadOptions, type TelegramUser } from './telegram.js';
export type { FakeIdentity, FakeOAuth, FakeOAuthFault, FakeOAuthOptions, FakeOAuthRequest } from './types.js';
