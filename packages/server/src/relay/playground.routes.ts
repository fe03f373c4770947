import { relayLangFromHeader, TokenStatus } from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { requireUser } from '../http/auth.js';
import { AppError, localise } from '../http/errors.js';
import { documentOnlyValidator, fastifySchema } from '../http/schema.js';
import type { CachedToken } from './auth-cache.js';
import { localError, RelayError } from './relay-error.js';
import { sendError } from './relay-reply.js';
import { relayErrorHandler } from './relay.routes.js';
import { relay } from './relay.service.js';
import { assertRelayJsonShape } from './request-parse.js';
import type { RelayAuth } from './token-auth.js';
import { enforceUsageLimits } from './usage-limits.js';

type Deps = Pick<AppContext, 'config' | 'db' | 'options' | 'relay' | 'rateLimitStore' | 'sessions' | 'users'>;

const PATH = '/pg/chat/completions';
const ROUTE = { mode: 'chat', format: 'openai-chat' } as const;

/**
 * The console's stand-in for an API token (reference §3.9): id 0, so the ledger moves the user's
 * quota only and no token row is read or debited; unlimited, so the reservation is bounded by the
 * user's balance alone; its name is what the usage log shows (`playground-<group>`).
 */
export function playgroundToken(userId: number, group: string): CachedToken {
  return {
    id: 0,
    userId,
    key: '',
    name: `playground-${group}`,
    status: TokenStatus.Enabled,
    expiredTime: -1,
    unlimited: true,
    modelLimits: null,
    allowIps: null,
    group,
    rpmLimit: 0,
    tpmLimit: 0,
    remainQuota: 0,
  };
}

/**
 * Takes the playground's own `group` field out of the body (an upstream would refuse an unknown
 * parameter). A body that is not a JSON object is left as it is: the pipeline words that error.
 */
function takeGroup(raw: Buffer): { group: string | undefined; body: Buffer } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { group: undefined, body: raw };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !Object.hasOwn(parsed, 'group')) return { group: undefined, body: raw };
  const { group, ...rest } = parsed as Record<string, unknown>;
  return { group: typeof group === 'string' ? group : String(group ?? ''), body: Buffer.from(JSON.stringify(rest)) };
}

/**
 * `POST /pg/chat/completions`: the playground, authenticated by the console session (cookie and
 * `New-Api-User`, never an API or access token), billed to the user in one of their usable groups
 * through the same relay pipeline as `/v1/chat/completions` — reserve, forward with retries,
 * settle and log through the ledger. Sign-in failures answer in the `/api` envelope (401), as the
 * console's HTTP client expects; everything after sign-in answers OpenAI error objects.
 */
export async function playgroundRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  const signedIn = requireUser(ctx);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.setValidatorCompiler(documentOnlyValidator);
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      if (error instanceof AppError) return reply.code(error.httpStatus).send({ success: false, message: localise(error, req) });
      return relayErrorHandler(error, req, reply);
    });
    scope.decorateRequest('relayAuth', null);
    // Before the body is read: a caller who is not signed in costs no buffering.
    scope.addHook('onRequest', async (req, reply) => {
      await signedIn(req, reply);
      // The reference refuses the system access token here too: the playground is the console's.
      if (req.authUser?.viaAccessToken) throw new AppError('PLAYGROUND_SESSION_ONLY', 401);
    });
    scope.post(PATH, { bodyLimit: ctx.config.bodyLimits.relayJson, schema: fastifySchema(`POST ${PATH}`) }, (req, reply) => playground(ctx, req, reply));
  });
}

async function playground(ctx: Deps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const lang = relayLangFromHeader(req.headers['accept-language']);
  try {
    const user = await ctx.relay.auth.user(req.authUser!.id);
    if (!user) throw new AppError('NOT_LOGGED_IN', 401);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // Before takeGroup parses and re-serialises it (a recursive JSON.stringify).
    assertRelayJsonShape(raw, lang);
    const { group: asked, body } = takeGroup(raw);
    const group = asked || user.group;
    if (!Object.hasOwn(ctx.options.usableGroups(user.group), group)) {
      throw localError(lang, 403, 'PLAYGROUND_GROUP_FORBIDDEN', { errorCode: 'group_not_allowed', detail: group });
    }
    req.body = body;
    const auth: RelayAuth = { token: playgroundToken(user.id, group), user, group, pinned: null };
    await enforceUsageLimits(ctx, req, reply, auth, lang);
    req.relayAuth = auth;
  } catch (err) {
    if (err instanceof RelayError) {
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      return sendError(reply, req.id, ROUTE.format, err, false);
    }
    throw err;
  }
  await relay(ctx, req, reply, ROUTE);
}
