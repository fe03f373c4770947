// The fake OpenAI upstream in its own process, so its CPU is not counted against a proxy.
import { startFakeOpenAI } from '../packages/testkit/dist/index.js';

const fake = await startFakeOpenAI({ port: 0, maxRecordedRequests: 10 });
process.send?.({ url: fake.url });
process.on('disconnect', () => void fake.close().then(() => process.exit(0)));
