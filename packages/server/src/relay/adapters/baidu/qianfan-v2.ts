import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { OpenAIWireAdapter, trimBase } from '../openai-base.js';
import type { ChannelTarget, UpstreamCall } from '../types.js';

/** Qianfan v2's host: the v1 workshop host (the type's default base) does not serve `/v2`. */
export const QIANFAN_V2_BASE = 'https://qianfan.baidubce.com';

/**
 * A Baidu channel whose key is a Qianfan v2 API key speaks v2: keys issued by Baidu's console for
 * v2 start `bce-v3/` (`bce-v3/ALTAK-…/…`), which never occurs in an `APIKey|SecretKey` pair.
 */
export function isQianfanV2Key(key: string): boolean {
  return key.trim().startsWith('bce-v3/');
}

/**
 * Qianfan v2 (reference §1.6): OpenAI-compatible `POST {base}/v2/chat/completions` (and
 * `/v2/embeddings`) with the key as a Bearer token, no OAuth exchange. The channel's base URL is
 * used unless it is empty or the v1 workshop host. Streams ask for the usage chunk
 * (`stream_options.include_usage`), which v2 honours.
 */
class QianfanV2 extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'baidu-v2', types: [ChannelType.Baidu], modes: ['chat', 'embeddings'], streamOptions: true });
  }

  protected override base(ch: ChannelTarget): string {
    const v1 = channelTypeInfo(ChannelType.Baidu)?.baseUrl ?? '';
    const base = trimBase(ch.baseUrl);
    return !base || base === trimBase(v1) ? QIANFAN_V2_BASE : base;
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/v2/${call.mode === 'embeddings' ? 'embeddings' : 'chat/completions'}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { authorization: `Bearer ${call.ch.key.trim()}` };
  }
}

export const qianfanV2 = new QianfanV2();
