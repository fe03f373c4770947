import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { button } from '../../test/dom';
import { aSelfUser } from '../../test/fixtures';
import { done, fail, mockApi, ok, type Handler } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

const SELF = aSelfUser(PLAIN_USER.id, { ...PLAIN_USER, aff_code: 'ABCD' });

function setup(putReply: Handler<'PUT /api/user/self'>) {
  const server = mockApi({
    'GET /api/user/self': () => ok(SELF),
    'GET /api/user/aff': () => ok('ABCD'),
    'PUT /api/user/self': putReply,
  });
  renderApp('/setting', PLAIN_USER);
  return server;
}

async function passwordCard(): Promise<HTMLElement> {
  const title = await screen.findByText('修改密码', { selector: '.ant-card-head-title' });
  return title.closest('.ant-card') as HTMLElement;
}

const fill = (card: HTMLElement, label: string, value: string) =>
  fireEvent.change(within(card).getByLabelText(label), { target: { value } });

describe('personal settings: change password', () => {
  it('sends the current password with the new one', async () => {
    const server = setup(() => done);
    const card = await passwordCard();
    fill(card, '当前密码', 'oldpassword1');
    fill(card, '新密码', 'newpassword1');
    fill(card, '确认新密码', 'newpassword1');
    fireEvent.click(button(card, '修改密码'));
    await waitFor(() => expect(server.find('PUT', '/api/user/self')).toHaveLength(1));
    expect(server.find('PUT', '/api/user/self')[0].body).toEqual({ original_password: 'oldpassword1', password: 'newpassword1' });
    expect(await screen.findByText('密码修改成功！')).toBeTruthy();
  });

  it('asks for the current password before calling the server', async () => {
    const server = setup(() => done);
    const card = await passwordCard();
    fill(card, '新密码', 'newpassword1');
    fill(card, '确认新密码', 'newpassword1');
    fireEvent.click(button(card, '修改密码'));
    expect(await within(card).findByText('请输入当前密码')).toBeTruthy();
    expect(server.find('PUT', '/api/user/self')).toHaveLength(0);
  });

  it("shows the server's refusal of a wrong current password", async () => {
    setup(() => fail('当前密码错误'));
    const card = await passwordCard();
    fill(card, '当前密码', 'wrongpass1');
    fill(card, '新密码', 'newpassword1');
    fill(card, '确认新密码', 'newpassword1');
    fireEvent.click(button(card, '修改密码'));
    expect(await screen.findByText('当前密码错误')).toBeTruthy();
    expect(screen.queryByText('密码修改成功！')).toBeNull();
  });
});
