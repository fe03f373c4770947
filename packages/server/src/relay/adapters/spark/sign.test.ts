import { createHmac } from 'node:crypto';
import { FAKE_SPARK_KEY, startFakeSpark, type FakeSpark } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sparkRoute } from './formats/spark/index.js';
import { sparkAuthorization, sparkKeyParts, sparkSignedUrl, sparkStringToSign } from './sign.js';

/**
 * iFlytek's WebSocket authentication (https://www.xfyun.cn/doc/spark/Web.html, "接口鉴权") on
 * inputs of the docs' shape (host `spark-api.xf-yun.com`, path `/v1.1/chat`, an RFC 1123 date):
 * the string to sign, the HMAC-SHA256 signature and the base64 `authorization`, step by step.
 * Neither the reference note nor the stored docs carry a published output value, so each step is
 * recomputed here independently and the whole is checked against the fake, which verifies as the
 * gateway does.
 */
const HOST = 'spark-api.xf-yun.com';
const DATE = 'Fri, 05 May 2023 10:43:39 GMT';
const SECRET = 'MjlmNzkzNmZkMDQ2OTc4OTY1MjZjNzRj';
const API_KEY = 'addd2272b6d8b7c8abdd79531420ca3b';

describe('Spark URL signing', () => {
  it('signs host, date and the request line, then base64s the authorization origin', () => {
    const toSign = sparkStringToSign(HOST, DATE, '/v1.1/chat');
    expect(toSign).toBe('host: spark-api.xf-yun.com\ndate: Fri, 05 May 2023 10:43:39 GMT\nGET /v1.1/chat HTTP/1.1');
    const signature = createHmac('sha256', SECRET).update(toSign).digest('base64');
    const authorization = sparkAuthorization({ apiKey: API_KEY, apiSecret: SECRET, host: HOST, date: DATE, path: '/v1.1/chat' });
    expect(Buffer.from(authorization, 'base64').toString()).toBe(`api_key="${API_KEY}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`);
  });

  it('builds the wss URL with form-encoded authorization, date and host', () => {
    const url = new URL(sparkSignedUrl('https://spark-api.xf-yun.com', '/v3.5/chat', { apiKey: API_KEY, apiSecret: SECRET }, new Date(Date.parse(DATE))));
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('wss://spark-api.xf-yun.com/v3.5/chat');
    expect([...url.searchParams.keys()]).toEqual(['authorization', 'date', 'host']);
    expect(url.search).toContain('date=Fri%2C+05+May+2023+10%3A43%3A39+GMT');
    expect(url.searchParams.get('host')).toBe(HOST);
    expect(url.searchParams.get('authorization')).toBe(sparkAuthorization({ apiKey: API_KEY, apiSecret: SECRET, host: HOST, date: DATE, path: '/v3.5/chat' }));
  });

  it('reads APPID|APISecret|APIKey and nothing else', () => {
    expect(sparkKeyParts(' app | secret | key ')).toEqual({ appId: 'app', apiSecret: 'secret', apiKey: 'key' });
    expect(sparkKeyParts('app|secret')).toBeUndefined();
    expect(sparkKeyParts('app||key')).toBeUndefined();
  });

  it('routes models to versions, the channel\'s version when the model names none', () => {
    expect(sparkRoute('SparkDesk-v3.5', '')).toMatchObject({ path: '/v3.5/chat', domain: 'generalv3.5' });
    expect(sparkRoute('SparkDesk-v4.0', 'v1.1')).toMatchObject({ path: '/v4.0/chat', domain: '4.0Ultra' });
    expect(sparkRoute('spark-lite', 'v3.5')).toMatchObject({ path: '/v1.1/chat', domain: 'lite' });
    expect(sparkRoute('spark-max-32k', '')).toMatchObject({ path: '/chat/max-32k', domain: 'max-32k' });
    expect(sparkRoute('SparkDesk', 'v3.1')).toMatchObject({ path: '/v3.1/chat', domain: 'generalv3' });
    expect(sparkRoute('SparkDesk', '3.5')).toMatchObject({ path: '/v3.5/chat', domain: 'generalv3.5' });
    expect(sparkRoute('SparkDesk', '')).toMatchObject({ path: '/v2.1/chat', domain: 'generalv2' });
    expect(sparkRoute('SparkDesk-v5.0', '')).toMatchObject({ path: '/v5.0/chat', domain: 'generalv5.0' });
  });
});

describe('the Spark fake checks the signature during the upgrade', () => {
  let sp: FakeSpark;
  const key = sparkKeyParts(FAKE_SPARK_KEY)!;
  beforeAll(async () => {
    sp = await startFakeSpark();
  });
  afterAll(() => sp.close());

  const upgrade = (url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.on('open', () => {
        ws.close();
        resolve({ status: 101, body: '' });
      });
      ws.on('unexpected-response', (req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      ws.on('error', (err) => (err.message.includes('Unexpected server response') ? undefined : reject(err)));
    });

  it('accepts a fresh signature and refuses a date skewed past 300 s with 403', async () => {
    expect((await upgrade(sparkSignedUrl(sp.url, '/v3.5/chat', key))).status).toBe(101);
    const skewed = await upgrade(sparkSignedUrl(sp.url, '/v3.5/chat', key, new Date(Date.now() - 301_000)));
    expect(skewed.status).toBe(403);
    expect(JSON.parse(skewed.body)).toEqual({ message: 'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication' });
  });

  it('refuses a signature over another path, and a missing one, with 401', async () => {
    const url = new URL(sparkSignedUrl(sp.url, '/v3.5/chat', key));
    url.pathname = '/v1.1/chat';
    expect(await upgrade(url.toString())).toEqual({ status: 401, body: JSON.stringify({ message: 'HMAC signature does not match' }) });
    expect(await upgrade(`${sp.url.replace('http', 'ws')}/v1.1/chat`)).toEqual({ status: 401, body: JSON.stringify({ message: 'Unauthorized' }) });
  });
});
