import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';
import { API_JSON_LIMITS, jsonShapeProblem, type JsonShapeProblem } from './json-shape.js';

/** The management API's answer to a body past a JSON limit: 400 in the route's envelope. */
export function jsonShapeAppError(problem: JsonShapeProblem): AppError {
  return new AppError(problem.kind === 'depth' ? 'JSON_TOO_DEEP' : 'JSON_ARRAY_TOO_LONG', 400, String(problem.limit));
}

/**
 * The JSON body parser of every route that keeps fastify's parsers (the management API): fastify's
 * own parser (prototype poisoning refused) behind the nesting and array limits of json-shape.ts.
 * The relay and task routes read raw bytes and check the same way before their own parse.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const problem = jsonShapeProblem(body as Buffer, API_JSON_LIMITS);
    if (problem) {
      done(jsonShapeAppError(problem), undefined);
      return;
    }
    void parse(req, (body as Buffer).toString('utf8'), done);
  });
}
