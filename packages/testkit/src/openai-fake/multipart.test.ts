import { describe, expect, it } from 'vitest';
import { multipartBoundary, parseMultipart } from './multipart.js';

describe('multipart parser', () => {
  it('reads the boundary from the content type', () => {
    expect(multipartBoundary('multipart/form-data; boundary=----abc')).toBe('----abc');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="q b"')).toBe('q b');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });

  it('parses fields and binary files as the platform FormData encodes them', async () => {
    const audio = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45, 3]);
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('language', 'fr');
    form.append('file', new Blob([audio], { type: 'audio/mpeg' }), 'clip; "v2".mp3');
    const request = new Request('http://x.invalid', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const boundary = multipartBoundary(request.headers.get('content-type') ?? undefined);
    expect(boundary).toBeDefined();
    const parsed = parseMultipart(body, boundary ?? '');
    expect(parsed.fields).toEqual({ model: 'whisper-1', language: 'fr' });
    expect(parsed.files).toHaveLength(1);
    expect(parsed.files[0].field).toBe('file');
    expect(parsed.files[0].contentType).toBe('audio/mpeg');
    expect(parsed.files[0].data.equals(audio)).toBe(true);
    expect(parsed.files[0].filename).toContain('clip');
  });

  it('rejects a body without its boundary', () => {
    expect(() => parseMultipart(Buffer.from('hello'), 'xyz')).toThrow(/boundary/u);
  });
});
