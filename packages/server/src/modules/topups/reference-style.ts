import type { FastifyRequest } from 'fastify';
import { AppError, localise } from '../../http/errors.js';

/**
 * The reference's answer for its top-up quote and pay routes (G10): `message:"success"` on success;
 * a failure carries its text in `data` as well, which is where the reference console reads it.
 */
export async function referenceStyle<T extends object>(req: FastifyRequest, fn: () => Promise<T> | T) {
  try {
    return { success: true as const, message: 'success' as const, ...(await fn()) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const text = localise(err, req);
    return { success: false as const, message: text, data: text };
  }
}
