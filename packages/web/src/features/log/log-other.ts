/** Display rules of the usage log (spec §9 colours); the billing facts and their math live in @modelgate/shared. */

export type Tone = 'green' | 'orange' | 'red';

/** Spec §9: use time under 101 s green, under 300 s orange, else red. */
export function useTimeTone(seconds: number): Tone {
  if (seconds < 101) return 'green';
  if (seconds < 300) return 'orange';
  return 'red';
}

/** Spec §9: first-token time under 3 s green, under 10 s orange, else red. */
export function frtTone(ms: number): Tone {
  const seconds = ms / 1000;
  if (seconds < 3) return 'green';
  if (seconds < 10) return 'orange';
  return 'red';
}

/** Trims float noise (0.30000000000000004) without hiding real digits. */
export function formatRatio(value: number): string {
  return String(Number(value.toPrecision(10)));
}
