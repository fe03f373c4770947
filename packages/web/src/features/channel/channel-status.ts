import type { Channel } from './api';

export type ResponseBand = 'untested' | 'fast' | 'good' | 'slow' | 'bad';

/** Spec §4: 0 untested; up to 1 s green; up to 3 s lime; up to 5 s yellow; above red. */
export function responseBand(ms: number): ResponseBand {
  if (!ms) return 'untested';
  if (ms <= 1000) return 'fast';
  if (ms <= 3000) return 'good';
  if (ms <= 5000) return 'slow';
  return 'bad';
}

export const RESPONSE_COLORS: Record<ResponseBand, string> = {
  untested: 'default',
  fast: 'green',
  good: 'lime',
  slow: 'gold',
  bad: 'red',
};

export interface TagGroupRow {
  isTagRow: true;
  tag: string;
  children: Channel[];
}

export type ChannelRow = Channel | TagGroupRow;

export const isTagRow = (row: ChannelRow): row is TagGroupRow => (row as TagGroupRow).isTagRow === true;

/** Tag mode: the server sends the channels of a page of tags; the rows are grouped here, in order. */
export function groupByTag(channels: Channel[]): ChannelRow[] {
  const rows: ChannelRow[] = [];
  const byTag = new Map<string, TagGroupRow>();
  for (const channel of channels) {
    const tag = channel.tag ?? '';
    if (!tag) {
      rows.push(channel);
      continue;
    }
    let group = byTag.get(tag);
    if (!group) {
      group = { isTagRow: true, tag, children: [] };
      byTag.set(tag, group);
      rows.push(group);
    }
    group.children.push(channel);
  }
  return rows;
}
