export { FAKE_SPARK_KEY, FAKE_SPARK_WORDS, sparkPromptTokens, startFakeSpark, type FakeSpark, type FakeSparkFault, type SparkRecordedRequest } from './server.js';
