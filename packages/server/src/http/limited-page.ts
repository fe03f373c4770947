import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, localise } from './errors.js';
import { escapeHtml } from './html.js';

/**
 * Runs the page-load limit; a refused browser gets a small HTML page (the message and a retry link
 * that reloads by itself once the window has passed) instead of the API's raw JSON envelope.
 * Returns true when the page was answered here.
 */
export async function limitPageLoad(
  req: FastifyRequest,
  reply: FastifyReply,
  limit: (req: FastifyRequest, reply: FastifyReply) => Promise<void>,
): Promise<boolean> {
  try {
    await limit(req, reply);
    return false;
  } catch (err) {
    if (!(err instanceof AppError) || err.httpStatus !== 429) throw err;
    const seconds = Number(err.vars?.seconds ?? 60);
    const message = localise(err, req);
    // The message and numbers are ours (no user input), escaping anyway keeps the page safe to edit.
    const text = escapeHtml(message);
    const html =
      `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="${seconds}">` +
      `<meta name="viewport" content="width=device-width,initial-scale=1"><title>429</title></head>` +
      `<body style="font-family:system-ui,sans-serif;margin:15vh auto;max-width:32em;text-align:center">` +
      `<h1 style="font-size:1.4em">429</h1><p id="limited">${text}</p><p><a href="">&#8635;</a></p></body></html>`;
    await reply.status(429).type('text/html; charset=utf-8').header('Cache-Control', 'no-store').send(html);
    return true;
  }
}
