// The fake OpenAI upstream in its own process, so its CPU is not counted against a proxy.
// argv[2]: optional JSON of extra FakeOpenAIOptions (e.g. slow streams for the memory test).
import { startFakeOpenAI } from '../packages/testkit/dist/index.js';

const extra = process.argv[2] ? JSON.parse(process.argv[2]) : {};
const fake = await startFakeOpenAI({ port: 0, maxRecordedRequests: 10, ...extra });
process.send?.({ url: fake.url });
process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
