export { startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions, type RealtimeConnection } from './server.js';
export {
  FAKE_REALTIME_REPLY,
  REALTIME_AUDIO_BYTES_PER_TOKEN,
  REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN,
  REALTIME_AUDIO_TOKENS_PER_WORD,
  realtimeTextTokens,
  realtimeUsage,
  type RealtimeUsage,
} from './session.js';
