import { handleSpeech, handleTranscriptions, handleTranslations } from './audio.js';
import { handleAIProxyOverview, handleBillingSubscription, handleBillingUsage, handleCreditGrants, handleOpenRouterCredits, handleSiliconFlowUserInfo } from './billing.js';
import { handleChatCompletions } from './chat.js';
import { handleCompletions } from './completions.js';
import type { RequestContext } from './context.js';
import { handleEmbeddings } from './embeddings.js';
import { handleImageEdits, handleImageVariations } from './image-uploads.js';
import { handleFakeFile, handleImageGenerations } from './images.js';
import { handleGetModel, handleListModels } from './models.js';
import { handleModerations } from './moderations.js';
import { handleResponses } from './responses.js';

export interface RouteMatch {
  handler: (ctx: RequestContext) => Promise<void>;
  /** Model named by the path (`/v1/models/{id}`). */
  pathModel?: string;
  /** Fake-only routes (image files) skip auth, as signed file URLs do. */
  public?: boolean;
}

const POST_ROUTES: Record<string, (ctx: RequestContext) => Promise<void>> = {
  '/v1/chat/completions': handleChatCompletions,
  '/v1/completions': handleCompletions,
  '/v1/embeddings': handleEmbeddings,
  '/v1/images/generations': handleImageGenerations,
  '/v1/images/edits': handleImageEdits,
  '/v1/images/variations': handleImageVariations,
  '/v1/audio/speech': handleSpeech,
  '/v1/audio/transcriptions': handleTranscriptions,
  '/v1/audio/translations': handleTranslations,
  '/v1/moderations': handleModerations,
  '/v1/responses': handleResponses,
};

const GET_ROUTES: Record<string, (ctx: RequestContext) => Promise<void>> = {
  '/v1/models': handleListModels,
  '/v1/dashboard/billing/subscription': handleBillingSubscription,
  '/v1/dashboard/billing/usage': handleBillingUsage,
  '/v1/dashboard/billing/credit_grants': handleCreditGrants,
  // Balance endpoints of OpenAI-compatible gateways this fake stands in for.
  '/v1/credits': handleOpenRouterCredits,
  '/v1/user/info': handleSiliconFlowUserInfo,
};

/**
 * The canonical route of a request path. Billing clients (and resellers copying OpenAI) call
 * `/dashboard/billing/*` on a base URL without `/v1`, so those are accepted both ways; every
 * other OpenAI route needs the `/v1` prefix, as on api.openai.com.
 */
export function canonicalRoute(path: string): string {
  return path.startsWith('/dashboard/billing/') ? `/v1${path}` : path;
}

export function matchRoute(method: string, route: string): RouteMatch | undefined {
  if (method === 'POST' && POST_ROUTES[route]) {
    return { handler: POST_ROUTES[route] };
  }
  if (method !== 'GET') return undefined;
  if (GET_ROUTES[route]) return { handler: GET_ROUTES[route] };
  // AIProxy authenticates with `Api-Key`, not Bearer: the handler checks it.
  if (route === '/api/report/getUserOverview') return { handler: handleAIProxyOverview, public: true };
  const model = /^\/v1\/models\/(.+)$/u.exec(route);
  if (model) {
    const id = decodeURIComponent(model[1]);
    return { handler: (ctx) => handleGetModel(ctx, id), pathModel: id };
  }
  if (/^\/fake-files\/[\w.-]+\.png$/u.test(route)) return { handler: handleFakeFile, public: true };
  return undefined;
}
