import type { ModelPricing } from './api';

/** gpt models first (spec §9), then by name. */
export function byPricingOrder(a: ModelPricing, b: ModelPricing): number {
  const ga = a.model_name.startsWith('gpt') ? 0 : 1;
  const gb = b.model_name.startsWith('gpt') ? 0 : 1;
  return ga - gb || a.model_name.localeCompare(b.model_name);
}

/** The models a group may use whose name contains `search` (any case), in pricing order. */
export function visibleModels(models: readonly ModelPricing[], group: string, search: string): ModelPricing[] {
  const needle = search.trim().toLowerCase();
  return models
    .filter((m) => (!group || m.enable_groups.includes(group)) && (!needle || m.model_name.toLowerCase().includes(needle)))
    .sort(byPricingOrder);
}

/** The group prices are shown for at first: the viewer's own when it is usable, else `default`, else any. */
export function initialGroup(groupRatio: Record<string, number>, userGroup: string | undefined): string {
  if (userGroup && Object.hasOwn(groupRatio, userGroup)) return userGroup;
  if (Object.hasOwn(groupRatio, 'default')) return 'default';
  return Object.keys(groupRatio)[0] ?? 'default';
}
