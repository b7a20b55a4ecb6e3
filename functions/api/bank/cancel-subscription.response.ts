export { data } from '../recurring/cancel.response';
