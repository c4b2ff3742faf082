#!/bin/sh
# config-agent: the agent's command line on the runtime the package brings. Settings default to
# /etc/config-agent/agent.ini; --settings FILE or $AGENT_SETTINGS choose another file.
: "${AGENT_SETTINGS:=/etc/config-agent/agent.ini}"
export AGENT_SETTINGS
exec /usr/lib/config-agent/bin/node /usr/lib/config-agent/dist/agent.cjs "$@"
