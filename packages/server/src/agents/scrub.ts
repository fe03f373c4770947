/**
 * Scrubbing for recorded agent requests: the fixtures under relay/formats/fixtures/agents/ hold what the
 * real clients sent, with every machine-specific value (temp paths, ports, ids, kernel, key) replaced by a
 * placeholder so the files are stable and carry nothing about the machine that recorded them.
 */

export interface CapturedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface ScrubContext {
  /** Absolute directories to replace, each with its placeholder, e.g. the temp HOME and working dir. */
  paths: Array<[string, string]>;
  /** Secrets (tokens) to replace with `<MODELGATE_TOKEN>`. */
  secrets: string[];
  /** Random ids seen so far, each replaced by a numbered placeholder (shared across one recording). */
  ids: Map<string, string>;
}

const UUIDISH = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function scrubText(text: string, ctx: ScrubContext): string {
  let out = text;
  const paths = [...ctx.paths].sort((a, b) => b[0].length - a[0].length);
  for (const [path, placeholder] of paths) {
    out = out.split(path).join(placeholder);
    // Claude Code names a project's folder after its path with every non-alphanumeric character as '-'.
    out = out.split(path.replace(/[^a-zA-Z0-9]/g, '-')).join(placeholder.replace(/[<>]/g, '-'));
  }
  for (const secret of ctx.secrets) if (secret) out = out.split(secret).join('<MODELGATE_TOKEN>');
  out = out.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<PORT>');
  out = out.replace(/(device_id\\?"\s*:\s*\\?")[0-9a-f]{16,}/g, '$1<DEVICE_ID>');
  out = out.replace(/(installation_id\\?"\s*:\s*\\?")[0-9a-f-]{16,}/g, '$1<INSTALLATION_ID>');
  out = out.replace(/OS Version: [^\n"\\]+/g, 'OS Version: <OS_VERSION>');
  out = out.replace(/\/(?:root|home\/[^/\s"\\]+)(?=[/\s"\\])/g, '<HOME>');
  out = out.replace(/turn_started_at_unix_ms\\?"\s*:\s*\d+/g, (m) => m.replace(/\d+$/, '0'));
  out = out.replace(UUIDISH, (m) => {
    let id = ctx.ids.get(m);
    if (!id) {
      id = `<ID-${ctx.ids.size + 1}>`;
      ctx.ids.set(m, id);
    }
    return id;
  });
  return out;
}

const DROP_HEADERS = new Set(['host', 'content-length', 'connection']);

/** Returns a scrubbed deep copy of a captured request, ready to be written as a fixture. */
export function scrubCapture(capture: CapturedRequest, ctx: ScrubContext): CapturedRequest {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(capture.headers)) {
    if (DROP_HEADERS.has(name)) continue;
    if (name === 'x-api-key' || name === 'authorization') {
      headers[name] = name === 'authorization' ? 'Bearer <MODELGATE_TOKEN>' : '<MODELGATE_TOKEN>';
      continue;
    }
    headers[name] = typeof value === 'string' ? scrubText(value, ctx) : value;
  }
  const body: unknown = JSON.parse(scrubText(JSON.stringify(capture.body), ctx));
  return { method: capture.method, url: scrubText(capture.url, ctx), headers, body };
}
