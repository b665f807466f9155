import { render } from 'preact';
import { prefetchLineage } from './api';
import { App } from './app';
import { parseRoute } from './util';
import './style.css';

if (['lineage', 'model'].includes(parseRoute(location.hash).screen)) prefetchLineage();

render(<App />, document.getElementById('app')!);
