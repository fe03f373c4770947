import { Role } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';

/**
 * What an admin without a second factor may still call while TwoFactorRequiredForAdmins is on:
 * the personal settings screen's own reads (the account, its models and invite code) and
 * enrolment, and nothing else: no admin power and no credential (the access token is refused).
 */
const ENROLMENT_ROUTES = new Set([
  'GET /api/user/self',
  'GET /api/user/self/groups',
  'GET /api/user/models',
  'GET /api/user/aff',
  'GET /api/user/2fa/status',
  'POST /api/user/2fa/setup',
  'POST /api/user/2fa/enable',
  // A passkey is a second factor too (modules/passkeys).
  'GET /api/user/passkey',
  'POST /api/user/passkey/register/options',
  'POST /api/user/passkey/register',
]);

/**
 * The admin policy (docs/security.md#second-factor): a console session of an admin or root without
 * a second factor is refused every other signed-in route with TWO_FACTOR_ENROLMENT_REQUIRED (HTTP
 * 403), so the console sends them to enrol. Runs after the route's auth guard (preValidation),
 * which put the caller on the request; public routes and access tokens are not concerned (an access
 * token is a credential the admin created deliberately, like an API key).
 */
export function installTwoFactorPolicy(app: FastifyInstance, ctx: Pick<AppContext, 'twoFactor'>): void {
  // A callback hook: every request passes here (the relay's too), and only a signed-in admin's needs a promise.
  app.addHook('preHandler', (req, _reply, done) => {
    const me = req.authUser;
    if (!me || me.viaAccessToken || me.role < Role.Admin || ENROLMENT_ROUTES.has(`${req.method} ${req.routeOptions.url ?? ''}`)) return done();
    ctx.twoFactor.enrolmentRequired(me).then((required) => done(required ? new AppError('TWO_FACTOR_ENROLMENT_REQUIRED', 403) : undefined), done);
  });
}
