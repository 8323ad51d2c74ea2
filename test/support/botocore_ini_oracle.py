# The oracle of test/real-cli/ini-dialect-differential.test.ts: how botocore reads AWS config
# files (botocore.configloader.load_config: configparser, nested blocks, the profile and services maps).
# Reads a JSON list of file paths on stdin; answers, per file, its profiles and services sections with nested
# keys flattened to "key.subkey" (as the JS SDK names them), or null when botocore cannot read the file
# (the AWS CLI then fails). No network.
import json
import sys

import botocore.configloader as loader


def flat(section):
    result = {}
    for key, value in section.items():
        if isinstance(value, dict):
            for sub, subvalue in value.items():
                result[key + "." + sub] = subvalue
        else:
            result[key] = value
    return result


answers = []
for path in json.load(sys.stdin):
    try:
        config = loader.load_config(path)
    except Exception:
        answers.append(None)
        continue
    answers.append({
        "profiles": {name: flat(values) for name, values in config["profiles"].items()},
        "services": {name: flat(values) for name, values in config["services"].items()},
    })
json.dump(answers, sys.stdout)
