import type { TablePaginationConfig } from 'antd';
import i18n from '../i18n';
import { PAGE_SIZE_OPTIONS } from './storage';

/**
 * The console lists' server-side pagination: size changer with the shared sizes and "N in total"
 * ("more than N" when the server capped its count: `capped`).
 */
export function listPagination(page: number, pageSize: number, total: number, onChange: (page: number, pageSize: number) => void, capped = false): TablePaginationConfig {
  return {
    current: page,
    pageSize,
    total,
    showSizeChanger: true,
    pageSizeOptions: PAGE_SIZE_OPTIONS.map(String),
    showTotal: (n) => i18n.t(capped ? 'common:pagination.totalAtLeast' : 'common:pagination.total', { total: n }),
    onChange,
  };
}
