import { fireEvent, waitFor } from '@testing-library/react';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATUS, mockApi, ok } from '../../test/mock-api';
import { renderApp } from '../../test/render';

const PUBLIC = path.resolve(__dirname, '../../../public');

function logo(): HTMLImageElement {
  const img = document.querySelector<HTMLImageElement>('img.mg-brand-logo');
  if (!img) throw new Error('no logo in the header');
  return img;
}

async function headerWithLogo(value: string): Promise<HTMLImageElement> {
  mockApi({ 'GET /api/status': () => ok({ ...DEFAULT_STATUS, logo: value }) });
  renderApp('/');
  await waitFor(() => expect(logo().getAttribute('src')).toBe(value || '/logo.svg'));
  return logo();
}

describe('header logo (Logo option)', () => {
  it('ships the spec’s default /logo.png as a real 192×192 PNG beside logo.svg', () => {
    const png = fs.readFileSync(path.join(PUBLIC, 'logo.png'));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([192, 192]);
    expect(fs.existsSync(path.join(PUBLIC, 'logo.svg'))).toBe(true);
  });

  it('shows the bundled logo when the option is empty', async () => {
    await headerWithLogo('');
  });

  it.each(['/logo.png', '/logo.svg'])('shows %s when the option names it', async (value) => {
    await headerWithLogo(value);
  });

  it('falls back to the bundled logo when the configured URL cannot be loaded, and stops there', async () => {
    const img = await headerWithLogo('https://cdn.invalid/missing.png');
    fireEvent.error(img);
    expect(img.getAttribute('src')).toBe('/logo.svg');
    // Should the fallback fail too, it stays put instead of looping.
    fireEvent.error(img);
    expect(img.getAttribute('src')).toBe('/logo.svg');
  });

  it('falls back the same way when /logo.png itself is missing', async () => {
    const img = await headerWithLogo('/logo.png');
    fireEvent.error(img);
    expect(img.getAttribute('src')).toBe('/logo.svg');
  });
});
