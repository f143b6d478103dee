{
  "targets": [
    {
      "target_name": "meridian_proj",
      "sources": ["proj_addon.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "libraries": ["-lproj", "-lsqlite3"],
      "cflags_cc": ["-std=c++17", "-O2", "-fexceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"]
    }
  ]
}
