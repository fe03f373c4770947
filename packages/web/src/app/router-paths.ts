/**
 * First path segments of the screens that exist. The side nav consults this so it never links
 * to a spec screen that has not been built yet; add a path here together with its route.
 */
export const BUILT_PATHS: ReadonlySet<string> = new Set([
  '/',
  '/about',
  '/pricing',
  '/usage',
  '/detail',
  '/login',
  '/register',
  '/reset',
  '/oauth',
  '/setting',
  '/token',
  '/channel',
  '/log',
  '/audit',
  '/midjourney',
  '/task',
  '/user',
  '/redemption',
  '/plan',
  '/topup',
  '/playground',
  '/chat',
  '/chat2link',
]);
