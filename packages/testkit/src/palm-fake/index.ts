export { FAKE_PALM_REPLY, startFakePalm, type FakePalm, type FakePalmOptions, type PalmRecordedRequest } from './server.js';
