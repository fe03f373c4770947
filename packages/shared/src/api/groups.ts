import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse } from './envelope.js';

export const groupRoutes = resource('groups', {
  'GET /api/group/': { auth: 'admin', summary: 'Group names defined in GroupRatio (always an array)', response: apiResponse(z.array(z.string())) },
});
