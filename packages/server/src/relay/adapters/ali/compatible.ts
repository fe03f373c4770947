import { ChannelType } from '@modelgate/shared';
import { OpenAIWireAdapter, trimBase } from '../openai-base.js';
import type { ChannelTarget, UpstreamCall } from '../types.js';
import { MODE_PATH } from '../types.js';

const COMPATIBLE = /\/compatible-mode(\/v1)?$/;

/**
 * A DashScope channel is in OpenAI-compatible mode when its base URL ends with
 * `/compatible-mode` (or `/compatible-mode/v1`), e.g. `https://dashscope.aliyuncs.com/compatible-mode`:
 * chat and embeddings then go to `…/compatible-mode/v1/…` in OpenAI's shape. Images always use the
 * native async task, whose host is the base URL without that suffix.
 */
export function isCompatibleMode(ch: Pick<ChannelTarget, 'baseUrl'>): boolean {
  return COMPATIBLE.test(trimBase(ch.baseUrl));
}

/** The DashScope host of a channel (the compatible-mode suffix removed). */
export function dashscopeRoot(baseUrl: string, fallback: string): string {
  return trimBase(baseUrl || fallback).replace(COMPATIBLE, '');
}

/**
 * DashScope's compatible mode (reference §2): the OpenAI body with `top_p` kept inside DashScope's
 * open interval (0, 1); streams ask for the usage chunk (`stream_options.include_usage`, which
 * compatible mode honours); errors are OpenAI's `{error:{…}}` with a `request_id`.
 */
class DashScopeCompatible extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'ali-compatible', types: [ChannelType.Ali], modes: ['chat', 'embeddings'], streamOptions: true });
  }

  protected override url(call: UpstreamCall): string {
    return `${dashscopeRoot(call.ch.baseUrl, this.defaultBaseUrl)}/compatible-mode/v1${MODE_PATH[call.mode]}`;
  }

  protected override prepareBody(body: Record<string, unknown>): boolean {
    if (typeof body.top_p !== 'number') return false;
    const clamped = Math.min(Math.max(body.top_p, 0.001), 0.999);
    if (clamped === body.top_p) return false;
    body.top_p = clamped;
    return true;
  }
}

export const dashscopeCompatible = new DashScopeCompatible();
