/**
 * Reads an SSE response to the end and returns the payload of each `data:` line, in order
 * (including `[DONE]`). For tests that check frames byte-exactly rather than through an SDK.
 */
export async function readSseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return parseSseData(text);
}

export function parseSseData(text: string): string[] {
  const payloads: string[] = [];
  for (const event of text.split(/\r?\n\r?\n/u)) {
    const data = event
      .split(/\r?\n/u)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /u, ''));
    if (data.length > 0) payloads.push(data.join('\n'));
  }
  return payloads;
}
