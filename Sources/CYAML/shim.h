// SPDX-License-Identifier: Apache-2.0
// The YAML parser's event API (libyaml 0.2: yaml_parser_parse and its events).
#include <yaml.h>
