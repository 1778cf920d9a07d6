// fake_uploader.h: a TextureUploader that records calls instead of talking to a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "tvis/widgets/texture_uploader.h"

namespace tvis::widgets::test {

struct FakeUploader : TextureUploader {
    int creates = 0, updates = 0, destroys = 0;
    int last_w = 0, last_h = 0;
    std::vector<std::uint8_t> last_pixels;
    bool fail = false;

    ImTextureID create(int w, int h, const std::uint8_t* rgba) override {
        if (fail) return nullptr;
        ++creates;
        keep(w, h, rgba);
        return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1000 + creates));
    }
    void update(ImTextureID, int w, int h, const std::uint8_t* rgba) override {
        ++updates;
        keep(w, h, rgba);
    }
    void destroy(ImTextureID) override { ++destroys; }

private:
    void keep(int w, int h, const std::uint8_t* rgba) {
        last_w = w;
        last_h = h;
        last_pixels.assign(rgba, rgba + static_cast<std::size_t>(w) * h * 4);
    }
};

}  // namespace tvis::widgets::test
