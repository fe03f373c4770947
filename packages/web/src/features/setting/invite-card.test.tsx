import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { done, fail, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

async function inviteCard(): Promise<HTMLElement> {
  const title = await screen.findByText('邀请信息', { selector: '.ant-card-head-title' });
  return title.closest('.ant-card') as HTMLElement;
}

describe('personal settings: invitations', () => {
  it('shows the ?aff= link, counts and rewards, and moves rewards to the balance in dollars', async () => {
    let pending = 1_250_000;
    const server = mockApi({
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, aff_code: 'ABCD', aff_count: 3, aff_quota: pending, aff_history_quota: 2_000_000 })),
      'GET /api/user/aff': () => ok('ABCD'),
      'POST /api/user/aff_transfer': (call) => {
        pending -= Number(call.body?.quota);
        return done;
      },
    });
    renderApp('/setting', PLAIN_USER);
    const card = await inviteCard();
    await waitFor(() => expect((within(card).getByTestId('invite-link') as HTMLInputElement).value).toBe(`${window.location.origin}/register?aff=ABCD`));
    expect(within(card).getByText('3')).toBeTruthy();
    expect(within(card).getByText('$2.50')).toBeTruthy();
    expect(within(card).getByText('$4.00')).toBeTruthy();

    fireEvent.click(button(card, '划转到余额'));
    const dialog = await screen.findByRole('dialog', { name: '划转邀请奖励' });
    const amount = within(dialog).getByLabelText('划转数量') as HTMLInputElement;
    expect(amount.value).toBe('2.50');
    fireEvent.change(amount, { target: { value: '0.5' } });
    fireEvent.click(button(dialog, '划转'));
    expect(await screen.findByText('划转额度最小为 $1.00')).toBeTruthy();
    expect(server.find('POST', '/api/user/aff_transfer')).toHaveLength(0);

    fireEvent.change(amount, { target: { value: '1.5' } });
    fireEvent.click(button(dialog, '划转'));
    await waitFor(() => expect(server.find('POST', '/api/user/aff_transfer')).toHaveLength(1));
    expect(server.find('POST', '/api/user/aff_transfer')[0]!.body).toEqual({ quota: 750_000 });
    expect(await screen.findByText('已划转 $1.50 到余额')).toBeTruthy();
    await waitFor(() => expect(within(card).getByText('$1.00')).toBeTruthy());
  });

  it('shows the server’s refusal and keeps the dialog open', async () => {
    mockApi({
      'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, aff_quota: 600_000 })),
      'GET /api/user/aff': () => ok('WXYZ'),
      'POST /api/user/aff_transfer': () => fail('邀请额度不足'),
    });
    renderApp('/setting', PLAIN_USER);
    const card = await inviteCard();
    await waitFor(() => expect(button(card, '划转到余额').disabled).toBe(false));
    fireEvent.click(button(card, '划转到余额'));
    const dialog = await screen.findByRole('dialog', { name: '划转邀请奖励' });
    fireEvent.change(within(dialog).getByLabelText('划转数量'), { target: { value: '1' } });
    fireEvent.click(button(dialog, '划转'));
    expect(await screen.findByText('邀请额度不足')).toBeTruthy();
    expect(screen.getByRole('dialog', { name: '划转邀请奖励' })).toBeTruthy();
  });
});
