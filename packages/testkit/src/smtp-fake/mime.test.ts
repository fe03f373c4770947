import { describe, expect, it } from 'vitest';
import { decodeEncodedWords, decodeQuotedPrintable, parseMail } from './mime.js';

describe('mime', () => {
  it('decodes encoded words and quoted-printable', () => {
    expect(decodeEncodedWords('=?UTF-8?B?6YKu566x6aqM6K+B?= code')).toBe('邮箱验证 code');
    expect(decodeEncodedWords('=?UTF-8?Q?Reset_=E5=AF=86=E7=A0=81?=')).toBe('Reset 密码');
    expect(decodeQuotedPrintable('a=3Db=\r\nc =E4=BD=A0')).toBe('a=bc 你');
  });

  it('reads the text and html parts of a multipart message', () => {
    const raw = [
      'Subject: =?UTF-8?B?5rWL6K+V?=',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'link http://x/?a=3D1',
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('<p>你好</p>').toString('base64'),
      '--b1--',
      '',
    ].join('\r\n');
    const m = parseMail(raw);
    expect(m.subject).toBe('测试');
    expect(m.text.trim()).toBe('link http://x/?a=1');
    expect(m.html.trim()).toBe('<p>你好</p>');
  });
});
