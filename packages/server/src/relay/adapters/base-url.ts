/** A channel's base URL without its trailing slashes. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A base URL whose paths already add `/v1`, without a trailing `/v1` the admin copied from the
 * vendor's docs: `https://api.example.com/v1/` would otherwise be asked for `/v1/v1/models` and
 * answer a bare 404 (issue 35).
 */
export function stripV1(url: string): string {
  return trimBase(url).replace(/\/v1$/i, '');
}
