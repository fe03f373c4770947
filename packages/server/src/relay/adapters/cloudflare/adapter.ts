import { ChannelType, isCloudflareAccountId } from '@modelgate/shared';
import type { WireError } from '../../formats/types.js';
import { OpenAIWireAdapter, parseOpenAIError } from '../openai-base.js';
import { SigningError, type ChannelTarget, type UpstreamCall, MODE_PATH } from '../types.js';

export const CLOUDFLARE_MODELS = [
  '@cf/meta/llama-3.1-8b-instruct',
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast',
  '@cf/meta/llama-3.2-3b-instruct',
  '@cf/mistral/mistral-7b-instruct-v0.1',
  '@cf/qwen/qwen1.5-14b-chat-awq',
  '@cf/google/gemma-7b-it-lora',
  '@cf/deepseek-ai/deepseek-r1-distill-qwen-32b',
  '@cf/baai/bge-base-en-v1.5',
  '@cf/baai/bge-large-en-v1.5',
  '@cf/baai/bge-m3',
] as const;

/** The account id and API token of a channel: `other` holds the account (the reference's place), or the key is `accountId|token`. */
export function cloudflareCredentials(ch: Pick<ChannelTarget, 'key' | 'other'>): { accountId: string; token: string } {
  const sep = ch.key.indexOf('|');
  if (sep > 0) return { accountId: ch.key.slice(0, sep).trim(), token: ch.key.slice(sep + 1).trim() };
  return { accountId: ch.other.trim(), token: ch.key.trim() };
}

/** Cloudflare's envelope `{result:null,success:false,errors:[{code,message}]}` → its first error. */
function parseCloudflareError(status: number, body: string): WireError | undefined {
  try {
    const json = JSON.parse(body) as { success?: unknown; errors?: Array<{ code?: unknown; message?: unknown }> };
    const first = Array.isArray(json.errors) ? json.errors[0] : undefined;
    if (json.success !== false || !first || typeof first.message !== 'string') return undefined;
    return { status, type: 'upstream_error', code: first.code === undefined ? null : String(first.code), param: null, message: first.message };
  } catch {
    return undefined;
  }
}

/**
 * Cloudflare Workers AI (type 39; providers-international §7) through its OpenAI-compatible
 * surface `/client/v4/accounts/{account}/ai/v1/{chat/completions,embeddings}`: OpenAI bodies and
 * SSE, Bearer API token, `@cf/…` model names. Streams are counted locally (the reference does;
 * the endpoint does not promise `stream_options`).
 */
class CloudflareAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'cloudflare', types: [ChannelType.Cloudflare], modes: ['chat', 'embeddings'], streamOptions: false, models: CLOUDFLARE_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    const { accountId } = cloudflareCredentials(call.ch);
    return `${this.base(call.ch)}/client/v4/accounts/${encodeURIComponent(accountId)}/ai/v1${MODE_PATH[call.mode]}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { authorization: `Bearer ${cloudflareCredentials(call.ch).token}` };
  }

  /**
   * A channel without an account id cannot address any model: refused before anything is sent. So
   * is one whose id is no account id (a row saved before the save rule): it is placed in the path.
   */
  override sign(req: Parameters<OpenAIWireAdapter['sign']>[0], call: UpstreamCall) {
    const { accountId } = cloudflareCredentials(call.ch);
    if (accountId && !isCloudflareAccountId(accountId)) {
      throw new SigningError({ status: 500, type: 'new_api_error', code: 'channel_target_invalid', param: null, message: `Cloudflare channel #${call.ch.id}: its account id is not 32 hexadecimal characters; fix it in the channel form`, retryable: true, disablesChannel: false });
    }
    if (!accountId) {
      throw new SigningError({
        status: 401,
        type: 'upstream_error',
        code: 'cloudflare_account_missing',
        param: null,
        message: `Cloudflare channel #${call.ch.id} has no account id: set it in the channel's account id field or use the key format accountId|token`,
        retryable: true,
        disablesChannel: false,
      });
    }
    return req;
  }

  protected override parseError(status: number, body: string): WireError {
    return parseCloudflareError(status, body) ?? parseOpenAIError(status, body);
  }

  /** Code 10000 is Cloudflare's authentication error (a revoked token, a token for another account). */
  protected override disablesChannel(err: WireError): boolean {
    return err.code === '10000' || super.disablesChannel(err);
  }
}

export const adapter = new CloudflareAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
