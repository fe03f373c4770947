import { deflateSync } from 'node:zlib';

/** A task as the Midjourney proxy serialises it (providers-china-and-tasks §8.1). Times are epoch ms. */
export interface MjFakeTask {
  id: string;
  action: string;
  status: 'NOT_START' | 'SUBMITTED' | 'IN_PROGRESS' | 'FAILURE' | 'SUCCESS' | 'MODAL';
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  progress: string;
  failReason: string;
  properties: Record<string, unknown>;
  buttons?: Array<{ customId: string; emoji: string; label: string; type: number; style: number }>;
}

/** The proxy's submit reply: always HTTP 200. */
export interface MjSubmitReply {
  code: number;
  description: string;
  result: unknown;
  properties: Record<string, unknown>;
}

export const reply = (code: number, description: string, result: unknown = null, properties: Record<string, unknown> = {}): MjSubmitReply => ({
  code,
  description,
  result,
  properties,
});

/** The plus proxy's buttons of a finished grid (U1..U4, V1..V4, reroll). */
export function gridButtons(hash: string): NonNullable<MjFakeTask['buttons']> {
  const b = (customId: string, label: string, emoji = '') => ({ customId, emoji, label, type: 2, style: 2 });
  return [
    ...[1, 2, 3, 4].map((i) => b(`MJ::JOB::upsample::${i}::${hash}`, `U${i}`)),
    b(`MJ::JOB::reroll::0::${hash}::SOLO`, '', '🔄'),
    ...[1, 2, 3, 4].map((i) => b(`MJ::JOB::variation::${i}::${hash}`, `V${i}`)),
  ];
}

/** The buttons of an upscaled image (variations and pans of the single image). */
export function upscaleButtons(hash: string): NonNullable<MjFakeTask['buttons']> {
  const b = (customId: string, label: string, emoji = '') => ({ customId, emoji, label, type: 2, style: 2 });
  return [
    b(`MJ::JOB::high_variation::1::${hash}::SOLO`, 'Vary (Strong)', '🪄'),
    b(`MJ::JOB::low_variation::1::${hash}::SOLO`, 'Vary (Subtle)', '🪄'),
    b(`MJ::Outpaint::50::1::${hash}::SOLO`, 'Zoom Out 2x', '🔍'),
    b(`MJ::CustomZoom::${hash}`, 'Custom Zoom', '🔍'),
    b(`MJ::JOB::pan_left::1::${hash}::SOLO`, '', '⬅️'),
    b(`MJ::Inpaint::1::${hash}::SOLO`, 'Vary (Region)', '🖌️'),
  ];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A small gradient PNG whose colour follows the task id, so every "generated" image differs. */
export function taskImage(id: string, size = 64): Buffer {
  let seed = 0;
  for (const ch of id) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
  const [r0, g0, b0] = [seed & 0xff, (seed >> 8) & 0xff, (seed >> 16) & 0xff];
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      row[1 + x * 3] = (r0 + x * 3) & 0xff;
      row[2 + x * 3] = (g0 + y * 3) & 0xff;
      row[3 + x * 3] = b0;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

/** `data:image/png;base64,…` as the proxy checks it. */
export function isDataUrl(v: unknown): boolean {
  return typeof v === 'string' && /^data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/]+=*$/.test(v);
}
