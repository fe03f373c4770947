import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { fail, mockApi, ok, status } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const MODELS = Array.from({ length: 13 }, (_, i) => `model-${String(i + 1).padStart(2, '0')}`);

async function modelsCard(title = '可用模型'): Promise<HTMLElement> {
  const heading = await screen.findByText(title, { selector: '.ant-card-head-title' });
  return heading.closest('.ant-card') as HTMLElement;
}

function tagTexts(card: HTMLElement): string[] {
  return Array.from(card.querySelectorAll('.ant-tag')).map((tag) => tag.textContent ?? '');
}

function toasts(): string[] {
  return Array.from(document.querySelectorAll('.ant-message-notice')).map((notice) => notice.textContent ?? '');
}

function withModels(reply: Parameters<typeof mockApi>[0]['GET /api/user/models']) {
  return mockApi({
    'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
    'GET /api/user/aff': () => ok('ABCD'),
    'GET /api/user/models': reply,
  });
}

describe('personal settings: available models', () => {
  it('shows the first 10 models as tags, then "more" reveals the rest', async () => {
    withModels(() => ok(MODELS));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard();
    await waitFor(() => expect(tagTexts(card)).toEqual(MODELS.slice(0, 10)));
    expect(within(card).getByText('共 13 个')).toBeTruthy();

    fireEvent.click(button(card, '更多（3）'));
    expect(tagTexts(card)).toEqual(MODELS);
    fireEvent.click(button(card, '收起'));
    expect(tagTexts(card)).toEqual(MODELS.slice(0, 10));
  });

  it('offers no "more" when there are 10 models or fewer', async () => {
    withModels(() => ok(MODELS.slice(0, 10)));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard();
    await waitFor(() => expect(tagTexts(card)).toHaveLength(10));
    expect(within(card).queryByText(/更多/)).toBeNull();
  });

  it('says so when no model is available to the user', async () => {
    withModels(() => ok([]));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard();
    expect(await within(card).findByText('暂无可用模型')).toBeTruthy();
    expect(tagTexts(card)).toEqual([]);
  });

  it('shows "failed to get model list" once (not the server text) and loads again on retry', async () => {
    let broken = true;
    const server = withModels(() => (broken ? fail('数据库错误') : ok(['gpt-4o-mini'])));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard();
    expect(await within(card).findByText('获取模型列表失败')).toBeTruthy();
    await waitFor(() => expect(toasts()).toEqual(['获取模型列表失败']));
    expect(screen.queryByText('数据库错误')).toBeNull();

    broken = false;
    fireEvent.click(button(card, '重试'));
    await waitFor(() => expect(tagTexts(card)).toEqual(['gpt-4o-mini']));
    expect(server.find('GET', '/api/user/models')).toHaveLength(2);
  });

  it('says the same in English, also for an HTTP failure', async () => {
    await i18n.changeLanguage('en');
    withModels(() => status(500));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard('Available models');
    expect(await within(card).findByText('Failed to get model list')).toBeTruthy();
    expect(button(card, 'Retry')).toBeTruthy();
  });

  it('shows English tags, count and "more"', async () => {
    await i18n.changeLanguage('en');
    withModels(() => ok(MODELS));
    renderApp('/setting', PLAIN_USER);
    const card = await modelsCard('Available models');
    await waitFor(() => expect(tagTexts(card)).toHaveLength(10));
    expect(within(card).getByText('13 models')).toBeTruthy();
    fireEvent.click(button(card, 'More (3)'));
    expect(tagTexts(card)).toEqual(MODELS);
  });
});
