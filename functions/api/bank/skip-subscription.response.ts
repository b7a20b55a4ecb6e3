export { data } from '../recurring/skip.response';
