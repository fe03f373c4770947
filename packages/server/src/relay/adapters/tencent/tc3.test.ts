import { describe, expect, it } from 'vitest';
import { tc3Authorization } from './tc3.js';

describe('TC3-HMAC-SHA256', () => {
  // Tencent Cloud's published signature v3 example (API docs, "Signature v3": CVM DescribeInstances).
  const published = {
    secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
    secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
    service: 'cvm',
    host: 'cvm.tencentcloudapi.com',
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
    timestamp: 1551113065,
  };

  it('reproduces the published test vector', () => {
    expect(tc3Authorization(published)).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  it('signs the exact body bytes, the action header and the date of the timestamp', () => {
    const base = { ...published, service: 'hunyuan', host: 'hunyuan.tencentcloudapi.com', headers: { 'content-type': 'application/json', 'x-tc-action': 'ChatCompletions' } };
    const a = tc3Authorization(base);
    expect(a).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE\/2019-02-25\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
    expect(tc3Authorization({ ...base, body: `${base.body} ` })).not.toBe(a);
    expect(tc3Authorization({ ...base, headers: { ...base.headers, 'x-tc-action': 'GetEmbedding' } })).not.toBe(a);
    expect(tc3Authorization({ ...base, timestamp: base.timestamp + 86400 })).toContain('/2019-02-26/hunyuan/');
  });
});
