// The fake Anthropic upstream in its own process, for the conversion row of the bench.
// argv[2]: optional JSON of extra FakeAnthropicOptions (e.g. chunkCount).
import { startFakeAnthropic } from '../packages/testkit/dist/index.js';

const extra = process.argv[2] ? JSON.parse(process.argv[2]) : {};
const fake = await startFakeAnthropic({ port: 0, maxRecordedRequests: 10, ...extra });
process.send?.({ url: fake.url });
process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
