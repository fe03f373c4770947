import { ChannelType } from '@modelgate/shared';
import { anthropicErrorType } from '../anthropic/formats/anthropic-messages/errors.js';
import type { ConvertContext, WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase, type ModelListRequest } from '../base.js';
import { trimBase } from '../openai-base.js';
import { SigningError, type ChannelTarget, type RelayMode, type ReplyHeaders, type StreamTransformer, type UpstreamCall, type UpstreamRequest } from '../types.js';
import { parseAwsKey, type AwsCredentials } from './credentials.js';
import { bedrockAnthropicEvents } from './event-stream.js';
import { BEDROCK_MODELS, bedrockModelId } from './model-ids.js';
import { signAws } from './sign.js';

/** Required in every Claude body on Bedrock, in place of the `anthropic-version` header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
const EVENT_STREAM = 'application/vnd.amazon.eventstream';

function headerValue(headers: ReplyHeaders | Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v.join(',') : v;
  return s && s.trim() ? s.trim() : undefined;
}

function credentials(ch: ChannelTarget): AwsCredentials {
  const c = parseAwsKey(ch.key);
  if (!c) {
    throw new SigningError({ status: 500, type: 'authentication_error', code: 'invalid_channel_key', param: null, message: 'the channel key is not AccessKeyId|SecretAccessKey|Region', retryable: true, disablesChannel: true });
  }
  return c;
}

/**
 * AWS Bedrock Runtime, Claude models (type 33; providers-international §5). The upstream speaks
 * Anthropic Messages with `anthropic_version` in the body and the model in the path; requests are
 * SigV4-signed after the body is final; streams come as binary event-stream frames carrying one
 * Anthropic event each. Key `AK|SK|Region[|SessionToken]`; base_url overrides the regional host.
 */
class BedrockAdapter extends AdapterBase {
  readonly slug = 'bedrock';
  readonly types = [ChannelType.Aws];
  readonly defaultBaseUrl = '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['anthropic-messages'] };
  readonly streamOptions = false;
  readonly models = BEDROCK_MODELS;

  private base(ch: ChannelTarget, region: string): string {
    return trimBase(ch.baseUrl || `https://bedrock-runtime.${region}.amazonaws.com`);
  }

  protected url(call: UpstreamCall): string {
    // A key without a region is refused when signing; the URL needs none to be built.
    const region = parseAwsKey(call.ch.key)?.region ?? 'us-east-1';
    // The id is encoded once here (`:` → `%3A`); the signer encodes the path again for the canonical URI.
    const id = encodeURIComponent(bedrockModelId(call.model, region));
    return `${this.base(call.ch, region)}/model/${id}/${call.stream ? 'invoke-with-response-stream' : 'invoke'}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return call.stream ? { 'content-type': 'application/json', accept: EVENT_STREAM, 'x-amzn-bedrock-accept': 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' };
  }

  /** No model (it is in the path), no `stream` (the path says it); the version and betas travel in the body. */
  protected override prepareBody(body: Record<string, unknown>, call: UpstreamCall): boolean {
    delete body.model;
    delete body.stream;
    body.anthropic_version = BEDROCK_ANTHROPIC_VERSION;
    const beta = headerValue(call.clientHeaders, 'anthropic-beta');
    if (beta) body.anthropic_beta = beta.split(',').map((b) => b.trim()).filter(Boolean);
    return true;
  }

  override async sign(req: UpstreamRequest, call: UpstreamCall): Promise<UpstreamRequest> {
    const signed = await signAws(credentials(call.ch), { method: 'POST', url: req.url, headers: req.headers, body: req.body });
    // undici sets Host from the URL itself; the signed value is the same.
    delete signed.host;
    return { ...req, headers: signed };
  }

  override isStreamReply(contentType: string): boolean {
    return contentType.includes(EVENT_STREAM);
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    return { ...super.streamTransformer(call, cx), events: bedrockAnthropicEvents };
  }

  /** `{"message"}` with the exception named in `x-amzn-ErrorType` (`Name:http://internal.amazon.com/…`). */
  protected parseError(status: number, body: string, headers?: ReplyHeaders): WireError {
    let message = body.trim() || `HTTP ${status}`;
    let name = headers ? headerValue(headers, 'x-amzn-errortype')?.split(':')[0] : undefined;
    try {
      const j = JSON.parse(body) as Record<string, unknown>;
      if (typeof j.message === 'string') message = j.message;
      else if (typeof j.Message === 'string') message = j.Message;
      if (!name && typeof j.__type === 'string') name = j.__type.split('#').pop();
    } catch {
      // not JSON: the text is the message
    }
    return { status, type: anthropicErrorType({ status, type: '' }), code: name ?? null, param: null, message: name ? `${name}: ${message}` : message };
  }

  /** Keys AWS does not know or whose signature fails are dead; a missing model grant (AccessDenied) too. */
  protected override disablesChannel(err: WireError): boolean {
    return err.code === 'UnrecognizedClientException' || err.code === 'InvalidSignatureException' || err.code === 'AccessDeniedException' || err.code === 'ExpiredTokenException' || super.disablesChannel(err);
  }

  /** Bedrock lists models on its control-plane host with a signed GET, which this unsigned request cannot be: the console does not offer it for this type. */
  override modelListRequest(ch: ChannelTarget): ModelListRequest {
    const region = parseAwsKey(ch.key)?.region ?? 'us-east-1';
    return { url: `${trimBase(ch.baseUrl || `https://bedrock.${region}.amazonaws.com`)}/foundation-models?byProvider=anthropic`, headers: {} };
  }
}

export const adapter = new BedrockAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
