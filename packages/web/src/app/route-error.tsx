import { CloseCircleOutlined, ReloadOutlined, WarningOutlined } from '@ant-design/icons';
import { Button, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';
import { SecondaryText, ShellHeading } from '../components/shell-text';
import { browser } from '../lib/api';

/**
 * How browsers and Vite word a screen chunk that did not arrive: Chromium, Firefox, Safari, and
 * Vite's preload of the chunk's CSS (a screen's translations fail as a ChunkLoadError, `i18n`). After a redeploy the old file names are gone (404), so a
 * console left open hits this on its next first visit to a screen.
 */
const CHUNK_LOAD_FAILURE = /dynamically imported module|Importing a module script failed|Unable to preload CSS/i;

export function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ChunkLoadError' || CHUNK_LOAD_FAILURE.test(error.message));
}

/**
 * A screen that failed to load or to render, inside the layout, with a way out: reloading the page.
 * It is part of the entry (it must show when chunks cannot be fetched), so it is built from the
 * shell's own parts rather than `Result`, whose illustrations would weigh on every page.
 */
export function RouteError() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const chunk = isChunkLoadError(useRouteError());
  const Icon = chunk ? WarningOutlined : CloseCircleOutlined;
  return (
    <div className="mg-route-error" role="alert">
      <Icon className="mg-route-error-icon" style={{ color: chunk ? token.colorWarning : token.colorError }} aria-hidden />
      <ShellHeading level={4}>{t(chunk ? 'routeError.chunkTitle' : 'routeError.title')}</ShellHeading>
      <p>
        <SecondaryText>{t(chunk ? 'routeError.chunkDescription' : 'routeError.description')}</SecondaryText>
      </p>
      <Button type="primary" icon={<ReloadOutlined />} onClick={() => browser.reload()}>
        {t('routeError.reload')}
      </Button>
    </div>
  );
}
