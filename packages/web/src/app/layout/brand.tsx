import { Link } from 'react-router';
import { useStatus } from '../status';

const DEFAULT_LOGO = '/logo.svg';
const DEFAULT_NAME = 'ModelGate';

export function Brand() {
  const { status } = useStatus();
  const name = status.system_name || DEFAULT_NAME;
  return (
    <Link to="/" className="mg-brand" aria-label={name}>
      <img
        src={status.logo || DEFAULT_LOGO}
        alt=""
        className="mg-brand-logo"
        onError={(event) => {
          // A broken admin-set logo URL should not leave an empty box in the header.
          if (!event.currentTarget.src.endsWith(DEFAULT_LOGO)) event.currentTarget.src = DEFAULT_LOGO;
        }}
      />
      <span className="mg-brand-name">{name}</span>
    </Link>
  );
}
