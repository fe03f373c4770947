import type { LogEntry } from '@modelgate/shared/api';
import type { LogRow } from '../../db/schema.js';

/**
 * A log row for the console (console-api.md G4): `channel` is the channel id, `other` is always a
 * JSON string ("{}" at least). Non-admin readers get no `admin_info` (which channels served the
 * request) and, like the reference, `id % 1024` instead of the row id.
 */
export function logView(r: LogRow, admin: boolean): LogEntry {
  let other = r.other && r.other.trim() ? r.other : '{}';
  if (!admin && other.includes('admin_info')) {
    try {
      const parsed = JSON.parse(other) as Record<string, unknown>;
      delete parsed.admin_info;
      other = JSON.stringify(parsed);
    } catch {
      other = '{}';
    }
  }
  return {
    id: admin ? Number(r.id) : Number(r.id) % 1024,
    user_id: Number(r.user_id),
    created_at: Number(r.created_at),
    type: Number(r.type),
    content: r.content ?? '',
    username: r.username ?? '',
    token_name: r.token_name ?? '',
    model_name: r.model_name ?? '',
    quota: Number(r.quota),
    prompt_tokens: Number(r.prompt_tokens),
    completion_tokens: Number(r.completion_tokens),
    use_time: Number(r.use_time),
    is_stream: !!r.is_stream,
    channel: Number(r.channel_id),
    token_id: Number(r.token_id),
    group: r.group ?? '',
    other,
  };
}
