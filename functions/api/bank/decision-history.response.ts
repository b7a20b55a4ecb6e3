export { data } from '../merchant/decision-history.response';
