import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, ok } from '../test/mock-api';
import { checkOption, fetchOptions, readOption, saveOption } from './options';

afterEach(() => vi.restoreAllMocks());

describe('typed options', () => {
  it('loads the option list by key, typed by the registry, dropping keys it does not know', async () => {
    mockApi({
      'GET /api/option/': () =>
        ok([
          { key: 'DisplayInCurrencyEnabled', value: 'false' },
          { key: 'QuotaPerUnit', value: '1000' },
          { key: 'GroupRatio', value: '{"vip":2}' },
          { key: 'FromANewerServer', value: 'x' },
        ]),
    });
    const options = await fetchOptions();
    expect(options).not.toHaveProperty('FromANewerServer');
    expect(readOption(options, 'DisplayInCurrencyEnabled')).toBe(false);
    expect(readOption(options, 'QuotaPerUnit')).toBe(1000);
    expect(readOption(options, 'GroupRatio')).toEqual({ vip: 2 });
    expect(readOption(options, 'SystemName')).toBe('ModelGate');
  });

  it('checks a value with the server’s rules before sending it', () => {
    expect(checkOption({}, 'ModelRatio', '{oops')).toMatchObject({ ok: false, code: 'OPTION_NOT_JSON' });
    expect(checkOption({}, 'Price', '8')).toMatchObject({ ok: false, code: 'OPTION_SERVER_ADDRESS_FIRST' });
    expect(checkOption({ ServerAddress: 'https://gate.example.com' }, 'Price', '8')).toEqual({ ok: true, value: '8' });
    // The client secret never reaches the console; the client id is what it can check.
    expect(checkOption({}, 'GitHubOAuthEnabled', true)).toMatchObject({ ok: false, code: 'OPTION_GITHUB_CONFIG' });
    expect(checkOption({ GitHubClientId: 'id' }, 'GitHubOAuthEnabled', true)).toEqual({ ok: true, value: 'true' });
  });

  it('refuses a misspelt key or a value of the wrong kind at compile time (tsc checks this file)', () => {
    // @ts-expect-error: not an option key
    expect(() => readOption({}, 'QuotaPerUnitt')).toThrow();
    // @ts-expect-error: a switch reads as a boolean, not a number
    const rate: number = readOption({}, 'DisplayInCurrencyEnabled');
    expect(rate).toBe(true);
  });

  it('saves one key with its value as a string', async () => {
    const server = mockApi({ 'PUT /api/option/': () => ok(null) });
    await saveOption('RetryTimes', 3);
    expect(server.find('PUT', '/api/option/')[0].body).toEqual({ key: 'RetryTimes', value: '3' });
  });
});
