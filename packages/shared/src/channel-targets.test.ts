import { describe, expect, it } from 'vitest';
import { channelTargetKey, channelTargetProblem, isVertexRegionSetting, otherIsTarget } from './channel-targets.js';
import { ChannelType, channelKeyProblem } from './channel-types.js';

describe('channel target rules', () => {
  it('refuse every Vertex "region" that is no region name: the region becomes the host', () => {
    for (const bad of ['127.0.0.1:8080/x?', 'evil.test/', 'us-central1.evil.test', 'a@b', 'a#b', 'US-CENTRAL1', 'us central1', 'a%2f', `${'a'.repeat(51)}`, '{"default":"evil.test/"}', '{"gemini-2.5-pro":"us-east5"}', '{"default":5}', '["us"]', '{bad'])
      expect([bad, channelTargetProblem(ChannelType.VertexAI, { other: bad })]).toEqual([bad, 'CHANNEL_TARGET_VERTEX_REGION']);
    for (const good of ['', 'us-central1', 'global', 'us', 'eu', 'europe-west4', '{"default":"us-central1","claude-3-5-sonnet-20240620":"europe-west1"}'])
      expect([good, channelTargetProblem(ChannelType.VertexAI, { other: good })]).toEqual([good, undefined]);
    expect(isVertexRegionSetting(' us-east5 ')).toBe(true);
  });

  it('hold each type’s other value to what its URL takes', () => {
    expect(channelTargetProblem(ChannelType.Cloudflare, { other: 'd6b5da8hk1awo8nap34ube6gh' })).toBe('CHANNEL_TARGET_CLOUDFLARE_ACCOUNT');
    expect(channelTargetProblem(ChannelType.Cloudflare, { other: '../../zones' })).toBe('CHANNEL_TARGET_CLOUDFLARE_ACCOUNT');
    expect(channelTargetProblem(ChannelType.Cloudflare, { other: '0123456789ABCDEF0123456789abcdef' })).toBeUndefined();
    expect(channelTargetProblem(ChannelType.Cloudflare, { other: '' })).toBeUndefined();
    expect(channelTargetProblem(ChannelType.Azure, { other: '2024-10-21&deployment=x' })).toBe('CHANNEL_TARGET_AZURE_VERSION');
    expect(channelTargetProblem(ChannelType.Azure, { other: '2025-01-01-preview' })).toBeUndefined();
    expect(channelTargetProblem(ChannelType.Xunfei, { other: '../v1' })).toBe('CHANNEL_TARGET_SPARK_VERSION');
    expect(channelTargetProblem(ChannelType.Xunfei, { other: '4.0Ultra' })).toBeUndefined();
    expect(channelTargetProblem(ChannelType.Gemini, { other: 'v1/../../x' })).toBe('CHANNEL_TARGET_GEMINI_VERSION');
    expect(channelTargetProblem(ChannelType.Gemini, { other: 'v1beta' })).toBeUndefined();
    // Not placed in a URL: Ali's plugin header, AI Proxy Library's knowledge base id.
    expect(otherIsTarget(ChannelType.Ali)).toBe(false);
    expect(channelTargetProblem(ChannelType.AIProxyLibrary, { other: 'any/thing?' })).toBeUndefined();
  });

  it('take base URLs and proxies with a host, by scheme, without credentials in a base URL', () => {
    expect(channelTargetProblem(1, { base_url: 'https://api.example.com/v1' })).toBeUndefined();
    expect(channelTargetProblem(8, { base_url: 'https://api.example.com/v1/{model}/chat?x=1' })).toBeUndefined();
    for (const bad of ['ftp://x', 'api.example.com', 'javascript:alert(1)', 'https://user:pw@api.example.com', 'https://{model}.example.com', 'wss://spark.example'])
      expect([bad, channelTargetProblem(1, { base_url: bad })]).toEqual([bad, 'CHANNEL_TARGET_BASE_URL']);
    expect(channelTargetProblem(ChannelType.Xunfei, { base_url: 'wss://spark-api.xf-yun.com' })).toBeUndefined();
    expect(channelTargetProblem(1, { setting: '{"proxy":"socks5://u:p@proxy.example:1080"}' })).toBeUndefined();
    expect(channelTargetProblem(1, { setting: '{"proxy":"file:///etc/passwd"}' })).toBe('CHANNEL_TARGET_PROXY');
  });

  it('compare targets as the relay would use them', () => {
    const key = (type: number, f: Parameters<typeof channelTargetKey>[1]) => channelTargetKey(type, f);
    expect(key(1, { base_url: 'https://a.example/', other: 'x' })).toBe(key(1, { base_url: ' https://a.example', other: 'y' }));
    expect(key(ChannelType.Azure, { base_url: 'https://r.example', other: '' })).toBe(key(ChannelType.Azure, { base_url: 'https://r.example', other: '2023-06-01-preview' }));
    expect(key(ChannelType.VertexAI, { other: 'us-east5' })).not.toBe(key(ChannelType.VertexAI, { other: 'us-central1' }));
    expect(key(1, { setting: '{"proxy":"http://p.example"}' })).not.toBe(key(1, { setting: '{"thinking_to_content":true}' }));
    expect(key(1, { setting: '{"proxy":""}' })).toBe(key(1, { setting: '{"thinking_to_content":true}' }));
    expect(key(1, {})).not.toBe(key(43, {}));
  });

  it('check the URL parts a key carries: a Vertex project id, a Bedrock region', () => {
    const sa = (project: string) => JSON.stringify({ project_id: project, client_email: 'a@p.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n' });
    expect(channelKeyProblem(ChannelType.VertexAI, sa('my-project-1'))).toBeUndefined();
    expect(channelKeyProblem(ChannelType.VertexAI, sa('example.com:legacy-project'))).toBeUndefined();
    expect(channelKeyProblem(ChannelType.VertexAI, sa('x/../../y'))).toMatch(/project_id/);
    expect(channelKeyProblem(ChannelType.Aws, 'AKIA|secret|evil.test/x')).toMatch(/Region/);
  });
});
