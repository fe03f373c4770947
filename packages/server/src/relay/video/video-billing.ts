import { perCallQuota, priceFor, ratioText, videoQuota, videoUsdPerSecond, type Lang, type LogOther, type VideoPriceTable } from '@modelgate/shared';
import type { OptionsService } from '../../modules/options/options.service.js';
import { pricingTables } from '../relay.service.js';
import { videoError } from './video-request.js';
import type { VideoPlan } from './video-types.js';

/** What a video costs, and how the consume log says so. */
export interface VideoCharge {
  quota: number;
  /** The consume log's `content` (shared log-content.ts `video` or `fixed`). */
  content: string;
  other: LogOther;
}

/**
 * The price of one video (issue 34): `seconds × VideoPrice[model][tier] × group ratio`, the
 * price per second taken from the model's row for the plan's resolution tier (or its `*`). A model
 * with no VideoPrice row is billed per task at its ModelPrice; a model with neither, or whose row
 * prices neither this tier nor `*`, is refused before anything is sent — nothing is billed at a
 * price nobody set.
 */
export function videoCharge(ctx: { options: OptionsService }, model: string, plan: VideoPlan, group: string, action: string, lang: Lang): VideoCharge {
  const tables = pricingTables(ctx);
  const price = priceFor(model, group, tables);
  const videoTable = ctx.options.json<VideoPriceTable>('VideoPrice', {});
  const usd = videoUsdPerSecond(videoTable, model, plan.resolution);
  if (usd !== undefined) {
    const bill = { seconds: plan.seconds, resolution: plan.resolution, usdPerSecond: usd, groupRatio: price.groupRatio, quotaPerUnit: price.quotaPerUnit };
    return {
      quota: videoQuota(bill),
      content: `视频生成 ${plan.seconds} 秒，分辨率 ${plan.resolution}，每秒价格 ${ratioText(usd)}，分组倍率 ${ratioText(price.groupRatio)}`,
      other: { model_price: -1, group_ratio: price.groupRatio, video: { seconds: plan.seconds, resolution: plan.resolution, usd_per_second: usd } },
    };
  }
  if (!Object.hasOwn(videoTable, model) && price.modelPrice >= 0) {
    return {
      quota: perCallQuota(price),
      content: `模型固定价格 ${ratioText(price.modelPrice)}，操作 ${action}`,
      other: { model_price: price.modelPrice, group_ratio: price.groupRatio },
    };
  }
  throw videoError(lang, 400, 'VIDEO_UNPRICED', { model, resolution: plan.resolution }, 'model');
}
