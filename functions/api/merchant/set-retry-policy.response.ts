export { data } from './retry-policy.response';
