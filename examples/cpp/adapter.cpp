// The shape an emulator adapter takes: a class that sits where the emulator's own shader JIT
// was, receives the GPU register writes of the command list and runs draws. The rest of the
// emulator (command processor, vertex loader, rasterizer) stays as it is.
//
//   c++ -std=c++17 -I capi/include -I examples/c examples/cpp/adapter.cpp
//       target/debug/libpicajit_capi.a -lpthread -ldl -lm     (one command line)
//   ./a.out ../shared/corpus/shbin/lovebrew__lovepotion__main_v_pica.shbin
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "picajit.h"
#include "scene.h"

namespace emu {

// One per emulated GPU. Not thread-safe (like the GPU it stands for); move it between
// threads freely.
class PicaShaderUnit {
public:
    explicit PicaShaderUnit(PicajitBackend backend = PICAJIT_BACKEND_AUTO) {
        Check(picajit_pipeline_new(backend, &gpu_));
    }
    ~PicaShaderUnit() { picajit_pipeline_free(gpu_); }
    PicaShaderUnit(const PicaShaderUnit&) = delete;
    PicaShaderUnit& operator=(const PicaShaderUnit&) = delete;

    // Called by the command processor for every internal register write.
    void WriteReg(std::uint16_t id, std::uint32_t value, std::uint8_t mask) {
        Check(picajit_write(gpu_, id, value, mask));
    }

    // A draw's results where picajit wrote them (no copy): valid until the next draw, so
    // primitive assembly reads them at once.
    struct Batch {
        const PicajitOutputVertex* vertices;  // semantic order, as the indices refer to them
        std::size_t vertex_count;
        const std::uint32_t* indices;         // per draw index, its vertex
        std::size_t index_count;
        std::vector<std::uint8_t> windings;   // per triangle, with a geometry shader
    };

    // Called for DRAWELEMENTS with the attributes the vertex loader converted to float.
    Batch DrawIndexed(const std::uint16_t* indices, std::size_t count,
                      const std::vector<PicajitAttribute>& attributes) {
        PicajitDraw draw{PICAJIT_INDEX_TYPE_U16, indices, count, 0};
        return Run(draw, attributes);
    }

    // Called for DRAWARRAYS.
    Batch DrawArrays(std::uint32_t first, std::size_t count,
                     const std::vector<PicajitAttribute>& attributes) {
        PicajitDraw draw{PICAJIT_INDEX_TYPE_RANGE, nullptr, count, first};
        return Run(draw, attributes);
    }

private:
    static void Check(PicajitStatus status) {
        if (status != PICAJIT_STATUS_OK)
            throw std::runtime_error(std::string("picajit: ") + picajit_last_error());
    }

    Batch Run(const PicajitDraw& draw, const std::vector<PicajitAttribute>& attributes) {
        PicajitDrawInfo info{};
        Check(picajit_draw(gpu_, &draw, attributes.data(), attributes.size(), &info));
        PicajitResults results{};
        Check(picajit_results(gpu_, &results));
        Batch batch{results.vertices, results.vertex_count, results.indices,
                    results.index_count, std::vector<std::uint8_t>(info.triangles)};
        std::size_t n = 0;
        Check(picajit_copy_windings(gpu_, batch.windings.data(), batch.windings.size(), &n));
        return batch;
    }

    PicajitPipeline* gpu_ = nullptr;
};

}  // namespace emu

static std::uint32_t Bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.shbin\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<std::uint8_t> file((std::istreambuf_iterator<char>(in)), {});
    if (file.empty()) throw std::runtime_error(std::string("cannot read ") + argv[1]);

    emu::PicaShaderUnit gpu;
    // What the game's command list would contain: the shader upload...
    std::size_t count = 0;
    picajit_shbin_commands(file.data(), file.size(), 0, nullptr, 0, &count);
    std::vector<PicajitRegWrite> commands(count);
    if (picajit_shbin_commands(file.data(), file.size(), 0, commands.data(), count, &count) !=
        PICAJIT_STATUS_OK)
        throw std::runtime_error(picajit_last_error());
    for (const auto& c : commands) gpu.WriteReg(c.reg, c.value, c.mask);
    // ...the vertex input layout and the uniforms (float32 mode: w, z, y, x).
    gpu.WriteReg(0x2B9, 0xA0000000u | 2, 0xF);
    gpu.WriteReg(0x2BB, 0x76543210u, 0xF);
    gpu.WriteReg(0x2BC, 0xFEDCBA98u, 0xF);
    gpu.WriteReg(0x2C0, 0x80000000u, 0xF);
    for (const auto& row : scene_uniforms)
        for (int c = 3; c >= 0; c--) gpu.WriteReg(0x2C1, Bits(row[c]), 0xF);

    std::vector<PicajitAttribute> attributes(3);
    attributes[0] = PicajitAttribute{scene_pos_uv, std::size(scene_pos_uv), 0, 5, 3, {}};
    attributes[1] = PicajitAttribute{scene_colors, std::size(scene_colors), 0, 4, 4, {}};
    attributes[2] = PicajitAttribute{scene_pos_uv, std::size(scene_pos_uv), 3, 5, 2, {}};
    auto batch = gpu.DrawIndexed(scene_indices, std::size(scene_indices), attributes);

    std::printf("%zu vertices, %zu indices\n", batch.vertex_count, batch.index_count);
    for (std::size_t v = 0; v < batch.vertex_count; v++) {
        const float* o = batch.vertices[v].slots;
        std::printf("vertex %zu: position %g %g %g %g color %g %g %g %g texcoord0 %g %g\n", v,
                    o[0], o[1], o[2], o[3], o[8], o[9], o[10], o[11], o[12], o[13]);
        std::printf("  bits");
        for (int k = 0; k < 24; k++) std::printf(" %08x", Bits(o[k]));
        std::printf("\n");
    }
    std::printf("indices");
    for (std::size_t k = 0; k < batch.index_count; k++) std::printf(" %u", batch.indices[k]);
    std::printf("\n");
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
