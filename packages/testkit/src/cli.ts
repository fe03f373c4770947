#!/usr/bin/env node
/**
 * Runs a fake upstream standalone, as a demo upstream for a local ModelGate:
 *   node packages/testkit/dist/cli.js --port 9100 --key sk-test
 *   node packages/testkit/dist/cli.js --provider anthropic --port 9200 --key sk-ant-test
 *   node packages/testkit/dist/cli.js --provider gemini --port 9300 --key AIza-test
 *   node packages/testkit/dist/cli.js --provider mj --port 9400 --key mj-secret   (mj-open: the open proxy)
 * Faults (and the OpenAI fake's balance) can then be changed at run time through `/__fake/*`.
 */
import { parseArgs } from 'node:util';
import { startFakeAnthropic } from './anthropic-fake/index.js';
import { startFakeBedrock } from './bedrock-fake/index.js';
import { startFakeCloudflare } from './cloudflare-fake/index.js';
import { startFakeCohere } from './cohere-fake/index.js';
import { startFakeJina } from './jina-fake/index.js';
import { startFakeGemini } from './gemini-fake/index.js';
import { startFakeMj } from './mj-fake/index.js';
import { startFakeOpenAI } from './openai-fake/index.js';
import { startFakePalm } from './palm-fake/index.js';
import { startFakeOllama } from './ollama-fake/index.js';
import { startFakeDify } from './dify-fake/index.js';
import { startFakeSpark } from './spark-fake/index.js';
import { startFakeAIProxyLibrary } from './aiproxy-library-fake/index.js';
import { startFakeRealtime } from './realtime-fake/index.js';

const USAGE = `Usage: modelgate-fake-upstream [options]
  --provider <name>   openai (default), anthropic (the Messages API at /v1/messages)
                      or gemini (generateContent at /v1beta/models/{model}:…),
                      mj (a Midjourney Proxy Plus at /mj/…), mj-open (the open proxy),
                      bedrock (SigV4-checked /model/{id}/invoke…; --key AKID:SECRET),
                      cohere (/v2/chat, /v2/embed, /v1/rerank), jina (/v1/embeddings, /v1/rerank),
                      cloudflare (/client/v4/accounts/{account}/ai/v1/…; account 0123456789abcdef0123456789abcdef),
                      palm (/v1beta2/models/chat-bison-001:generateMessage?key=…),
                      ollama (/api/embed, /api/tags and the OpenAI-compatible /v1/…; --models: pulled models),
                      dify (an app's /v1/chat-messages; --key app-…),
                      spark (iFlytek Spark's signed WebSocket /v{x}/chat; --key APPID|APISecret|APIKey),
                      aiproxy-library (AIProxy's knowledge base /api/library/ask, library lib-fake-0001; --key: Api-Key),
                      realtime (the Realtime API WebSocket at /v1/realtime?model=, Azure's /openai/realtime)
  --port <n>          port to listen on (default 9100, 0 = random)
  --host <addr>       interface to bind (default 127.0.0.1)
  --key <key>         accepted API key; repeat for several (default: any key)
  --chunks <n>        words (stream content frames) per reply (default 5)
  --chunk-delay <ms>  delay between stream frames (default 0)
  --balance <usd>     hard_limit_usd served by the billing endpoints (default 100)
  --models <a,b,...>  model ids served by /v1/models (gemini: the models it answers)
  --strict-models     404 for models not in --models
  --step-ms <n>       mj: time between two progress steps of a task (default 2000)
  --help`;

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number ≥ 0, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      key: { type: 'string', multiple: true },
      chunks: { type: 'string' },
      'chunk-delay': { type: 'string' },
      balance: { type: 'string' },
      models: { type: 'string' },
      'strict-models': { type: 'boolean' },
      'step-ms': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = intOption(values.port, 'port', 9100);
  const host = values.host ?? '127.0.0.1';
  const keys = values.key && values.key.length > 0 ? values.key : undefined;
  const chunkCount = intOption(values.chunks, 'chunks', 5);
  const chunkDelayMs = intOption(values['chunk-delay'], 'chunk-delay', 0);
  const models = values.models?.split(',').map((m) => m.trim()).filter(Boolean);
  // A long-running demo should not grow without bound.
  const maxRecordedRequests = 1000;
  const fakes: Record<string, () => Promise<{ label: string; url: string; close: () => Promise<void> }>> = {
    openai: async () => {
      const fake = await startFakeOpenAI({
        port,
        host,
        apiKeys: keys,
        chunkCount,
        chunkDelayMs,
        balance: { hardLimitUsd: intOption(values.balance, 'balance', 100) },
        models,
        strictModels: values['strict-models'] ?? false,
        maxRecordedRequests,
      });
      return { label: `OpenAI upstream (OpenAI base URL ${fake.baseURL})`, url: fake.url, close: fake.close };
    },
    anthropic: async () => ({ label: 'Anthropic upstream', ...(await startFakeAnthropic({ port, host, apiKeys: keys, chunkCount, chunkDelayMs, maxRecordedRequests })) }),
    gemini: async () => ({ label: 'Gemini upstream', ...(await startFakeGemini({ port, host, apiKeys: keys, chunkCount, chunkDelayMs, models, maxRecordedRequests })) }),
    bedrock: async () => {
      const credentials = keys?.map((k) => {
        const [accessKeyId = '', secretAccessKey = ''] = k.split(':');
        return { accessKeyId, secretAccessKey };
      });
      return { label: 'Bedrock upstream', ...(await startFakeBedrock({ port, host, chunkCount, credentials })) };
    },
    cohere: async () => ({ label: 'Cohere upstream', ...(await startFakeCohere({ port, host, apiKeys: keys, chunkCount })) }),
    jina: async () => ({ label: 'Jina upstream', ...(await startFakeJina({ port, host, apiKeys: keys })) }),
    cloudflare: async () => ({ label: 'Cloudflare upstream', ...(await startFakeCloudflare({ port, host, apiTokens: keys, chunkCount })) }),
    ollama: async () => ({ label: 'Ollama upstream', ...(await startFakeOllama({ port, host, chunkCount, models })) }),
    dify: async () => ({ label: 'Dify app upstream', ...(await startFakeDify({ port, host, appKeys: keys })) }),
    realtime: async () => ({ label: 'Realtime API upstream (WebSocket)', ...(await startFakeRealtime({ port, host, apiKeys: keys, models })) }),
    palm: async () => ({ label: 'PaLM 2 upstream', ...(await startFakePalm({ port, host, apiKeys: keys })) }),
    spark: async () => ({ label: 'iFlytek Spark upstream (WebSocket)', ...(await startFakeSpark({ port, host, keys, chunkCount })) }),
    'aiproxy-library': async () => ({ label: 'AIProxy knowledge base upstream', ...(await startFakeAIProxyLibrary({ port, host, apiKeys: keys })) }),
    mj: async () => ({ label: 'Midjourney proxy (plus)', ...(await startFakeMj({ port, host, secret: keys?.[0], kind: 'plus', stepMs: intOption(values['step-ms'], 'step-ms', 2000) })) }),
    'mj-open': async () => ({ label: 'Midjourney proxy (open)', ...(await startFakeMj({ port, host, secret: keys?.[0], kind: 'open', stepMs: intOption(values['step-ms'], 'step-ms', 2000) })) }),
  };
  const provider = values.provider ?? 'openai';
  const start = fakes[provider];
  if (!start) throw new Error(`--provider must be one of ${Object.keys(fakes).join(', ')}, got "${provider}"`);
  const fake = await start();
  process.stdout.write(`Fake ${fake.label} listening on ${fake.url}\n`);
  const stop = (): void => {
    void fake.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(1);
});
