import i18n from '../i18n';
import { ApiError, call } from './api';
import { showError } from './feedback';

/** One cache entry for the user's models: settings, token form and playground share it. */
export const userModelsKey = ['user', 'models'] as const;

/**
 * The models the signed-in user may call. A failure shows the spec's one message ("failed to get
 * model list") wherever the list is fetched, instead of the server's text; the call is silent so
 * it is toasted once. A 401 already sends the user to the login page, so it says nothing more.
 */
export async function fetchUserModels(): Promise<string[]> {
  try {
    const models = await call('GET /api/user/models', { silent: true });
    return Array.isArray(models) ? models : [];
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) showError(i18n.t('common:error.modelList'));
    throw error;
  }
}
